using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// One image of a prompt (PNG, JPEG, GIF or WebP; at most 20 per prompt, each at most 5 MiB),
    /// sent after the text: see <see cref="RobotaSession.Submit(string, IEnumerable{RobotaImage})"/>.
    /// A bad image (a missing file, an unknown media type, bytes that are not the stated type,
    /// over 5 MiB) fails the submit with <see cref="RobotaInvalidConfigException"/> naming it
    /// (<c>images[i]</c>).
    /// </summary>
    public sealed class RobotaImage
    {
        private readonly Dictionary<string, object> doc;

        private RobotaImage(Dictionary<string, object> doc)
        {
            this.doc = doc;
        }

        /// <summary>An image from its bytes and media type (<c>image/png</c>, <c>image/jpeg</c>, <c>image/gif</c>, <c>image/webp</c>).</summary>
        public static RobotaImage FromBytes(byte[] data, string mediaType) => new RobotaImage(new Dictionary<string, object>
        {
            { "data", Convert.ToBase64String(data ?? throw new ArgumentNullException(nameof(data))) },
            { "media_type", mediaType ?? throw new ArgumentNullException(nameof(mediaType)) },
        });

        /// <summary>An image file the library reads at submit (relative to the session's <see cref="SessionConfig.Cwd"/>); its type is told by its bytes.</summary>
        public static RobotaImage FromFile(string path) => new RobotaImage(new Dictionary<string, object>
        {
            { "path", path ?? throw new ArgumentNullException(nameof(path)) },
        });

        /// <summary>An image by http(s) URL, fetched by the model's vendor.</summary>
        public static RobotaImage FromUrl(Uri url) => new RobotaImage(new Dictionary<string, object>
        {
            { "url", (url ?? throw new ArgumentNullException(nameof(url))).AbsoluteUri },
        });

        /// <summary>The input document of <paramref name="text"/> with <paramref name="images"/>.</summary>
        internal static string InputJson(string text, IEnumerable<RobotaImage> images)
        {
            var list = new List<object>();
            foreach (var image in images ?? throw new ArgumentNullException(nameof(images)))
            {
                list.Add((image ?? throw new ArgumentException("an image is null", nameof(images))).doc);
            }
            return Json.Serialize(new Dictionary<string, object>
            {
                { "text", text ?? throw new ArgumentNullException(nameof(text)) },
                { "images", list },
            });
        }
    }
}
